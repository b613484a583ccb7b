#pragma once
// Counters, gauges and histograms with Prometheus text exposition.
// (Filled in with the API server; the store reports WAL fsync latency here.)
