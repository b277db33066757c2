// racecheck probe (docs/GPU-VALIDATION.md, "What racecheck reports"); run with run.sh on an sm_90 GPU.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
__device__ __forceinline__ uint32_t mix(uint32_t x){x^=x>>16;x*=0x7FEB352Du;x^=x>>15;x*=0x846CA68Bu;x^=x>>16;return x;}
__device__ __forceinline__ void stagger(int mode, long long d) {
  int w = threadIdx.x / 32, W = blockDim.x / 32;
  long long n = mode == 1 ? w : mode == 2 ? (W - 1 - w) : 0;
  long long t0 = clock64();
  while (clock64() - t0 < n * d) { }
}
template <int C> __device__ __forceinline__ uint32_t ldc(const uint32_t* p) {
  uint32_t v; unsigned a = (unsigned)__cvta_generic_to_shared(p) - 4u * C;
  asm volatile("ld.shared.u32 %0, [%1+%2];" : "=r"(v) : "r"(a), "n"(4 * C) : "memory");
  return v;
}
__device__ __forceinline__ uint32_t ldw(const uint32_t* p) {
  switch (threadIdx.x / 32) {
  case 0: return ldc<0>(p); case 1: return ldc<1>(p); case 2: return ldc<2>(p); case 3: return ldc<3>(p);
  case 4: return ldc<4>(p); case 5: return ldc<5>(p); case 6: return ldc<6>(p); default: return ldc<7>(p);
  }
}
// WAR variants: every thread reads s[t] then writes s[g]
__global__ void k(int var, int pat, int mode, long long d, unsigned long long* out){
  __shared__ uint32_t s[1024];
  int t = threadIdx.x, T = blockDim.x;
  for (int w=t; w<1024; w+=T) s[w]=0;
  __syncthreads();
  unsigned long long cs = 1469598103934665603ULL ^ t;
  int g = pat == 0 ? (t + 32) % T : T - 1 - t;
  int w = t / 32;
  switch (var) {
  case 0: cs ^= s[t]; stagger(mode, d); s[g] = mix(t+1); break;                       // baseline
  case 1: if (w % 2 == 0) cs ^= s[t + 32]; stagger(mode, d); if (w % 2 == 1) s[t] = mix(t+1); break; // readers only read
  case 2: cs ^= s[t]; __syncwarp(); stagger(mode, d); s[g] = mix(t+1); break;
  case 3: cs ^= s[t]; __threadfence_block(); stagger(mode, d); s[g] = mix(t+1); break;
  case 4: cs ^= ((volatile uint32_t*)s)[t]; stagger(mode, d); ((volatile uint32_t*)s)[g] = mix(t+1); break;
  case 5: cs ^= s[t]; asm volatile("" ::: "memory"); stagger(mode, d); s[g] = mix(t+1); break;
  case 6: out[t] = s[t]; stagger(mode, d); s[g] = mix(t+1); break;
  case 7: cs ^= s[t]; stagger(mode, d); __threadfence_block(); s[g] = mix(t+1); __threadfence_block(); break;
  case 8: { uint32_t x = s[t]; if (x == 12345u) cs++; } stagger(mode, d); s[g] = mix(t+1); break; // branch on value
  case 9: cs ^= s[t]; __syncwarp(); s[g] = mix(t+1); break;   // syncwarp, no stagger
  case 11: cs ^= s[t]; stagger(mode, d); out[t+256] = 5; if (w % 2 == 1) s[t - 32] = mix(t+1); break; // readers all, writers odd warps
  case 12: if (w % 2 == 0) { cs ^= s[t + 32]; s[512 + t] = 1; } stagger(mode, d); if (w % 2 == 1) s[t] = mix(t+1); break; // even read then write elsewhere
  case 13: if (w % 2 == 0) { cs ^= s[t + 32]; cs ^= s[600 + t]; } stagger(mode, d); if (w % 2 == 1) s[t] = mix(t+1); break; // even read twice
  case 14: if (w % 2 == 0) { cs ^= s[t + 32]; } stagger(mode, d); if (w % 2 == 1) { s[t] = mix(t+1); } else { s[512 + t] = 1; } break; // even: read, later write elsewhere
  case 15: if (w % 2 == 0) { cs ^= s[t + 32]; } stagger(mode, d); if (w % 2 == 1) { cs ^= s[700+t]; s[t] = mix(t+1); } break; // writer reads first
  case 20: cs ^= ldw(&s[t]); stagger(mode, d); s[g] = mix(t+1); break;
  case 21: cs ^= ldw(&s[t]); stagger(mode, d); out[t+256] = 5; if (w % 2 == 1) s[t - 32] = mix(t+1); break;
  case 22: cs ^= ldw(&s[t]); stagger(mode, d); s[T - 1 - t] = mix(t+1); break;
  case 10: cs ^= s[t]; __threadfence_block(); s[g] = mix(t+1); break; // fence, no stagger
  }
  out[t] ^= cs;
}
int main(int argc, char** argv){
  int var = atoi(argv[1]), pat = atoi(argv[2]), mode = atoi(argv[3]), T = atoi(argv[4]);
  long long d = atoll(argv[5]);
  unsigned long long* dd; cudaMalloc(&dd, 8*1024);
  k<<<1,T>>>(var, pat, mode, d, dd);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return 0;
}
