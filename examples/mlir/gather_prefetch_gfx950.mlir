// Gather-to-LDS prefetch: each iteration issues the async copy of the next tile into the
// other half of LDS, then waits for the current tile (vmcnt(1): the copy just issued may stay
// in flight) and publishes it with a barrier.
module attributes {gpu.container_module} {
  gpu.module @prefetch [#rocdl.target<chip = "gfx950">] {
    gpu.func @prefetch(%G: memref<1048576xf32, #gpu.address_space<global>>, %Out: memref<1048576xf32, #gpu.address_space<global>>) workgroup(%lds : memref<2048xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %c1024 = arith.constant 1024 : index
      %tid = gpu.thread_id x
      %b0 = memref.subview %lds[0] [1024] [1] : memref<2048xf32, #gpu.address_space<workgroup>> to memref<1024xf32, strided<[1]>, #gpu.address_space<workgroup>>
      %b1 = memref.subview %lds[1024] [1024] [1] : memref<2048xf32, #gpu.address_space<workgroup>> to memref<1024xf32, strided<[1], offset: 1024>, #gpu.address_space<workgroup>>
      amdgpu.gather_to_lds %G[%tid], %b0[%c0] : f32, memref<1048576xf32, #gpu.address_space<global>>, memref<1024xf32, strided<[1]>, #gpu.address_space<workgroup>>
      %sum = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %c0) -> (index) {
        %t = arith.addi %tid, %c1024 : index
        amdgpu.gather_to_lds %G[%t], %b1[%c0] : f32, memref<1048576xf32, #gpu.address_space<global>>, memref<1024xf32, strided<[1], offset: 1024>, #gpu.address_space<workgroup>>
        rocdl.s.waitcnt 3953
        amdgpu.lds_barrier
        %x = memref.load %b0[%tid] : memref<1024xf32, strided<[1]>, #gpu.address_space<workgroup>>
        memref.store %x, %Out[%tid] : memref<1048576xf32, #gpu.address_space<global>>
        rocdl.s.waitcnt 3952
        amdgpu.lds_barrier
        %y = memref.load %b1[%tid] : memref<1024xf32, strided<[1], offset: 1024>, #gpu.address_space<workgroup>>
        memref.store %y, %Out[%t] : memref<1048576xf32, #gpu.address_space<global>>
        amdgpu.lds_barrier
        amdgpu.gather_to_lds %G[%tid], %b0[%c0] : f32, memref<1048576xf32, #gpu.address_space<global>>, memref<1024xf32, strided<[1]>, #gpu.address_space<workgroup>>
        %acc2 = arith.addi %acc, %c1 : index
        scf.yield %acc2 : index
      }
      gpu.return
    }
  }
}
