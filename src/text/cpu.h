// cpu.h — what the processor offers, as glibc found it once at start-up.
//
// GCC's own ways of asking (__builtin_cpu_supports, target_clones) run libgcc's probe at start-up
// in every process that links them: a dozen cpuid instructions, each a trap to the hypervisor in
// a virtual machine (6-7 us apiece measured on a cloud VM; the probe was a tenth of the CPU time
// of seek on a one-line file). glibc has already asked, before main, and keeps the answer.
#pragma once

#include <sys/platform/x86.h>

namespace text {

// AVX2 usable: present, and its registers saved by the kernel.
inline bool has_avx2() {
  return CPU_FEATURE_ACTIVE(AVX2);
}

}  // namespace text
