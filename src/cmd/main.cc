// berth: one binary, one subcommand per job (cmd/app.h).

#include "cmd/app.h"

int main(int argc, char** argv) { return berth::app::Main(argc, argv); }
