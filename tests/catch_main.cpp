// Our own Catch2 main: Debian's libCatch2WithMain.a is an x86-64 object and cannot link on ARM.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
