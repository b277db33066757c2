// Block reduction, tree style: every step reads two partial sums, then only the lower half of
// the threads (a divergent condition) writes back. The barriers stay outside the divergent
// scf.if: waves that skip a barrier would never arrive.
module attributes {gpu.container_module} {
  gpu.module @reduce [#rocdl.target<chip = "gfx1200">] {
    gpu.func @block_sum(%in: memref<65536xf32>, %out: memref<256xf32>) workgroup(%buf : memref<512xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c256 = arith.constant 256 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %gi = arith.addi %base, %tid : index
      %v = memref.load %in[%gi] : memref<65536xf32>
      memref.store %v, %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
      rocdl.s.wait.dscnt 0
      rocdl.s.barrier.signal id = -1
      rocdl.s.barrier.wait id = -1
      scf.for %i = %c0 to %c8 step %c1 {
        %s0 = arith.shrui %c256, %i : index
        %s = arith.shrui %s0, %c1 : index
        %j = arith.addi %tid, %s : index
        %a = memref.load %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%j] : memref<512xf32, #gpu.address_space<workgroup>>
        %sum = arith.addf %a, %b : f32
        rocdl.s.wait.dscnt 0
        rocdl.s.barrier.signal id = -1
        rocdl.s.barrier.wait id = -1
        %p = arith.cmpi ult, %tid, %s : index
        scf.if %p {
          memref.store %sum, %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
        }
        rocdl.s.wait.dscnt 0
        rocdl.s.barrier.signal id = -1
        rocdl.s.barrier.wait id = -1
      }
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %r = memref.load %buf[%c0] : memref<512xf32, #gpu.address_space<workgroup>>
        memref.store %r, %out[%bid] : memref<256xf32>
      }
      gpu.return
    }
  }
}
