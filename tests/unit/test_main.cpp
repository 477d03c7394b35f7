// The main() of the unit tests (Catch2's).

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
