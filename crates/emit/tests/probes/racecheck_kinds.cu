// racecheck probe (docs/GPU-VALIDATION.md, "What racecheck reports"); run with run.sh on an sm_90 GPU.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
__device__ __forceinline__ uint32_t mix(uint32_t x){x^=x>>16;x*=0x7FEB352Du;x^=x>>15;x*=0x846CA68Bu;x^=x>>16;return x;}
__global__ void k(int which, int T, unsigned long long* out){
  __shared__ uint32_t s[1024];
  int t = threadIdx.x;
  for (int w=t; w<1024; w+=blockDim.x) s[w]=0;
  __syncthreads();
  unsigned long long cs = 1469598103934665603ULL ^ t;
  uint32_t v = mix(t*7919u+which+1);
  switch (which) {
  case 0: cs ^= s[t+64]; s[127-t] = v; break;                 // war_index as emitted (T=64)
  case 1: s[t] = v; cs ^= s[(t+32)%T]; break;                  // RAW cross-warp
  case 2: cs ^= s[(t+32)%T]; s[t] = v; break;                  // WAR cross-warp symmetric
  case 3: if (t<32) cs ^= s[t]; if (t>=32) s[t-32] = v; break;  // WAR: warp0 reads, warp1 writes
  case 4: if (t>=32) cs ^= s[t-32]; if (t<32) s[t] = v; break;  // WAR: warp1 reads, warp0 writes
  case 5: s[t] = v; s[(t+32)%T] = v+1; break;                  // WAW
  case 6: s[t] = v; atomicAdd(&s[0], v); break;                // store vs atomics (atomic_vs_store)
  case 7: atomicAdd(&s[t], v); s[(t+32)%T] = v; break;         // atomic then store other warp
  case 8: s[t] = v; atomicAdd(&s[(t+32)%T], v); break;         // store then atomic other warp
  case 9: atomicAdd(&s[t], v); cs ^= s[(t+32)%T]; break;       // atomic then read other warp
  case 10: cs ^= s[(t+32)%T]; atomicAdd(&s[t], v); break;      // read then atomic other warp
  case 11: cs ^= s[(t+32)%T]; s[t] = 0; break;                 // WAR writing the same value (0)
  case 12: s[t] = 5; s[(t+32)%T] = 5; break;                   // WAW same value
  case 13: { volatile uint32_t* vs = s; cs ^= vs[(t+32)%T]; vs[t] = v; } break; // WAR volatile
  case 14: cs ^= s[(t+32)%T]; __syncwarp(); s[t] = v; break;   // WAR with syncwarp between
  case 15: if (t<32) { cs ^= s[t+32]; } else { for (int i=0;i<2000;i++) cs = cs*3+i; s[t] = v; } break; // WAR: write late
  case 16: if (t>=32) { for (int i=0;i<2000;i++) cs = cs*3+i; cs ^= s[t-32]; } else { s[t] = v; } break; // RAW: read late
  case 17: cs ^= s[T-1-t]; s[t] = v; break;                    // WAR reversed
  case 18: s[t] = v; cs ^= s[T-1-t]; break;                    // RAW reversed
  case 19: cs ^= s[(t+32)%T]; s[t] = v; cs ^= s[(t+32)%T]; break; // read, write, read
  case 20: atomicAdd(&s[t], v); atomicAdd(&s[(t+32)%T], v); break; // atomic vs atomic
  case 21: atomicAdd(&s[0], v); cs ^= s[0]; break;            // atomics then read same word
  case 22: cs ^= s[0]; atomicAdd(&s[0], v); break;            // read then atomics
  case 23: if (t==40) s[0] = v; atomicAdd(&s[0], v); break;    // one store, all atomic
  case 24: atomicAdd(&s[0], v); if (t==40) s[0] = v; break;    // all atomic, then one store
  case 25: s[t]=v; __syncthreads(); cs ^= s[(t+32)%T]; s[(t+32)%T] = v+3; break; // WAR after barrier, value present
  }
  out[t] = cs;
}
int main(int argc, char** argv){
  int which = atoi(argv[1]); int T = argc>2 ? atoi(argv[2]) : 64;
  unsigned long long* d; cudaMalloc(&d, 8*1024);
  k<<<1,T>>>(which, T, d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("probe %d T=%d %s\n", which, T, cudaGetErrorString(e));
  return 0;
}
