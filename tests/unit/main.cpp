#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  // Show doubles in failure messages with every digit: the tolerances here
  // are often far below Catch's default display precision.
  Catch::StringMaker<double>::precision = 17;
  return Catch::Session().run(argc, argv);
}
