// Attention-like main loop over key/value blocks: K and V tiles staged through two LDS
// buffers. Scores read K, the output accumulation reads V; the next block's stores must wait
// until every wave has finished reading both tiles.
module attributes {gpu.container_module} {
  gpu.module @attn [#rocdl.target<chip = "gfx950">] {
    gpu.func @attention(%K: memref<8192x64xf16>, %V: memref<8192x64xf16>, %O: memref<8192x64xf16>, %nblocks: index) workgroup(%kt : memref<64x64xf16, #gpu.address_space<workgroup>>, %vt : memref<64x64xf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %tid = gpu.thread_id x
      %row = arith.divui %tid, %c8 : index
      %lane = arith.remui %tid, %c8 : index
      %col = arith.muli %lane, %c8 : index
      %zero = arith.constant dense<0.0> : vector<8xf16>
      %acc = scf.for %j = %c0 to %nblocks step %c1 iter_args(%o = %zero) -> (vector<8xf16>) {
        %jr = arith.muli %j, %c64 : index
        %gr = arith.addi %jr, %row : index
        %kv = vector.load %K[%gr, %col] : memref<8192x64xf16>, vector<8xf16>
        %vv = vector.load %V[%gr, %col] : memref<8192x64xf16>, vector<8xf16>
        vector.store %kv, %kt[%row, %col] : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        vector.store %vv, %vt[%row, %col] : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        amdgpu.lds_barrier
        %kr = vector.load %kt[%lane, %col] : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        %s = arith.mulf %kr, %kr : vector<8xf16>
        %vr = vector.load %vt[%lane, %col] : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        %p = arith.mulf %s, %vr : vector<8xf16>
        %o2 = arith.addf %o, %p : vector<8xf16>
        amdgpu.lds_barrier
        scf.yield %o2 : vector<8xf16>
      }
      vector.store %acc, %O[%row, %col] : memref<8192x64xf16>, vector<8xf16>
      gpu.return
    }
  }
}
