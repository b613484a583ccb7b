#include "metrics/metrics.h"
