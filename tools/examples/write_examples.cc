// Writes the example models to a directory: `write_examples DIR`.
#include <iostream>

#include "graph/error.h"
#include "tools/examples/models.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_examples DIR\n";
    return 2;
  }
  try {
    for (const auto& [file, symbol] : symx::examples::AllExamples()) {
      symbol.Save(std::string(argv[1]) + "/" + file);
    }
  } catch (const symx::Error& e) {
    std::cerr << "write_examples: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
