// GEMM main loop with a double-buffered LDS tile, the way a tile DSL lowers it: global loads
// of tile k+1 overlap the reads of tile k; one barrier per iteration serves both the RAW
// (next iteration reads what this one stored) and the WAR (the store two iterations later
// overwrites what this one read).
module attributes {gpu.container_module} {
  gpu.module @gemm [#rocdl.target<chip = "gfx942">] {
    gpu.func @gemm_db(%A: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) workgroup(%lds : memref<16384xi8, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %c8192 = arith.constant 8192 : index
      %tid = gpu.thread_id x
      %row = arith.divui %tid, %c8 : index
      %lane = arith.remui %tid, %c8 : index
      %col = arith.muli %lane, %c8 : index
      %a0 = memref.view %lds[%c0][] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %a1 = memref.view %lds[%c8192][] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %g0 = vector.load %A[%row, %col] : memref<4096x4096xf16>, vector<8xf16>
      vector.store %g0, %a0[%row, %col] : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
      %zero = arith.constant dense<0.0> : vector<8xf16>
      amdgpu.lds_barrier
      %r:3 = scf.for %k = %c0 to %c64 step %c1 iter_args(%cur = %a0, %nxt = %a1, %acc = %zero) -> (memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>) {
        %kn = arith.addi %k, %c1 : index
        %gr = arith.muli %kn, %c64 : index
        %grow = arith.addi %gr, %row : index
        %g = vector.load %A[%grow, %col] : memref<4096x4096xf16>, vector<8xf16>
        %f = vector.load %cur[%lane, %col] : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        %acc2 = arith.addf %acc, %f : vector<8xf16>
        vector.store %g, %nxt[%row, %col] : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        amdgpu.lds_barrier
        scf.yield %nxt, %cur, %acc2 : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
      }
      vector.store %r#2, %C[%row, %col] : memref<4096x4096xf16>, vector<8xf16>
      gpu.return
    }
  }
}
