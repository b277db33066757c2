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
// a, b: 0 read, 1 write, 2 atomic. pat: 0 (t+32)%T, 1 T-1-t
__global__ void k(int a, int b, int pat, int mode, long long d, unsigned long long* out){
  __shared__ uint32_t s[1024];
  int t = threadIdx.x, T = blockDim.x;
  for (int w=t; w<1024; w+=T) s[w]=0;
  __syncthreads();
  unsigned long long cs = 1469598103934665603ULL ^ t;
  int g = pat == 0 ? (t + 32) % T : T - 1 - t;
  if (a == 0) cs ^= s[t]; else if (a == 1) s[t] = mix(t + 1); else atomicAdd(&s[t], mix(t + 1));
  stagger(mode, d);
  if (b == 0) cs ^= s[g]; else if (b == 1) s[g] = mix(t + 7777); else atomicAdd(&s[g], mix(t + 7777));
  out[t] = cs;
}
int main(int argc, char** argv){
  int a = atoi(argv[1]), b = atoi(argv[2]), pat = atoi(argv[3]), mode = atoi(argv[4]), T = atoi(argv[5]);
  long long d = atoll(argv[6]);
  unsigned long long* dd; cudaMalloc(&dd, 8*1024);
  k<<<1,T>>>(a, b, pat, mode, d, dd);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return 0;
}
