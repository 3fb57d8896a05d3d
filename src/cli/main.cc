// mmkg: the command-line entry point (the commands and their parsing are in cli/run.cc).
#include "cli/run.h"

int main(int argc, char** argv) { return mmkg::cli::run(argc, argv); }
