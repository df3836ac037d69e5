// fuzz-sources:
// A target that crashes on purpose, for tests/fuzz's own test: run.sh must fail on it.
// (Kept out of tests/fuzz/*_fuzz.cpp, which run.sh runs by default.)
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 1 && data[0] == 'x') __builtin_trap();
  return 0;
}
