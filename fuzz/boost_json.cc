// Boost.JSON's implementation, compiled into the fuzz build so that libFuzzer
// and the sanitizers see inside the parser (cmake/Fuzz.cmake).
#include <boost/json/src.hpp>
