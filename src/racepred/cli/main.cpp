#include "racepred/cli/cli.hpp"

int main(int argc, char** argv) {
  return racepred::cli::run(argc, argv);
}
