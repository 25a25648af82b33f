#include <iostream>

#include "experiments/cli/cli.hpp"

int main(int argc, char** argv) { return parlab::run_cli(argc, argv, std::cout, std::cerr); }
