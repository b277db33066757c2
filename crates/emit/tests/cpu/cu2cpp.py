#!/usr/bin/env python3
"""Turns the kernel of a plain `syncopt emit cuda` build into C++ that runs each CUDA thread as
an OS thread (std::barrier for __syncthreads, cp.async copies done at issue, atomics as
__atomic_fetch_add), so the emitted CUDA's checksums can be compared with `syncopt run`
without a GPU. Handles `__syncthreads` and `cp.async` kernels (not mbarrier / bar.sync inline
PTX: exits 3 on those). Usage: cu2cpp.py in.cu out.cpp"""
import re
import sys

src = open(sys.argv[1]).read()
if "asm volatile" in src.split("__global__", 1)[1].split("int main(", 1)[0] or "sk_mbar_" in src.split("// ---- kernel body ----", 1)[1]:
    sys.exit(3)
defs = "\n".join(l for l in src.splitlines() if l.startswith("#define SK_") and not l.startswith("#define SK_CHECK"))
helpers = []
for name in ["sk_mix", "sk_val", "sk_fold", "sk_mod"]:
    m = re.search(r"__device__ __forceinline__ [^\n]*\b" + name + r"\(.*?\n}\n", src, re.S)
    helpers.append(m.group(0).replace("__device__ __forceinline__ ", "static inline "))
kernel = src[src.index("__global__"):src.index("int main(")]
sig = re.search(r"sk_kernel\((.*?)\)\s*{", kernel).group(1)
params = [p.strip().split()[-1] for p in sig.split(",")][4:]
main = src[src.index("int main("):]
defaults = {v: re.search(r"long long " + v + r" = (-?\d+)LL;", main).group(1) for v in params}
kernel = kernel.replace("__global__ void __launch_bounds__(SK_THREADS)", "static void")
kernel = kernel.replace("__shared__ __align__(16)", "alignas(16) static")
kernel = kernel.replace("extern __shared__ __align__(16) uint32_t arena[];", "alignas(16) static uint32_t arena[SK_SHARED_WORDS];")
NL = "\\n"
ARGS = ' '.join('if (!strncmp(argv[i], "%s=", %d)) { %s = atoll(argv[i] + %d); continue; }' % (n, len(n) + 1, v, len(n) + 1) for v, n in zip(params, re.findall(r'strncmp\(argv\[i\], "(\w+)="', main)))
out = f"""#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
{defs}
struct Dim {{ unsigned x; }};
static thread_local Dim threadIdx;
static const Dim blockIdx = {{0}};
static std::barrier<>* sk_bar;
static inline void __syncthreads() {{ sk_bar->arrive_and_wait(); }}
static inline void __pipeline_memcpy_async(uint32_t* d, const uint32_t* s, int) {{ *d = *s; }}
static inline void __pipeline_commit() {{}}
static inline void __pipeline_wait_prior(int) {{}}
static inline uint32_t atomicAdd(uint32_t* p, uint32_t v) {{ return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }}
static inline void sk_delay(int) {{}}
{''.join(helpers)}
{kernel}
static uint32_t sk_mix_host(uint32_t x) {{ return sk_mix(x); }}
int main(int argc, char** argv) {{
  {' '.join(f'long long {v} = {defaults[v]}LL;' for v in params)}
  for (int i = 1; i < argc; ++i) {{
    {ARGS}
    return 2;
  }}
  std::vector<uint32_t> gin(SK_GLOBAL_WORDS), gout(SK_GLOBAL_WORDS);
  for (long long i = 0; i < SK_GLOBAL_WORDS; ++i) gin[i] = sk_mix_host((uint32_t)i * 0x9E3779B1u + 0x5BD1E995u);
  std::vector<unsigned long long> sums(SK_THREADS);
  std::barrier<> bar(SK_THREADS);
  sk_bar = &bar;
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < SK_THREADS; ++t)
    ts.emplace_back([&, t] {{ threadIdx.x = t; sk_kernel(gin.data(), gout.data(), sums.data(), -1{''.join(', ' + v for v in params)}); }});
  for (auto& th : ts) th.join();
  for (int i = 0; i < SK_THREADS; ++i) printf("%d %016llx{NL}", i, sums[i]);
  return 0;
}}
"""
open(sys.argv[2], "w").write(out)
