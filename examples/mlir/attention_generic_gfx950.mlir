// The attention kernel in generic form (mlir-opt --mlir-print-op-generic).
"builtin.module"() ({
  "gpu.module"() <{sym_name = "attn", targets = [#rocdl.target<chip = "gfx950">]}> ({
    "gpu.func"() <{function_type = (memref<8192x64xf16>, memref<8192x64xf16>, memref<8192x64xf16>, index) -> ()}> ({
    ^bb0(%arg0: memref<8192x64xf16>, %arg1: memref<8192x64xf16>, %arg2: memref<8192x64xf16>, %arg3: index, %arg4: memref<64x64xf16, #gpu.address_space<workgroup>>, %arg5: memref<64x64xf16, #gpu.address_space<workgroup>>):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %2 = "arith.constant"() <{value = 8 : index}> : () -> index
      %3 = "arith.constant"() <{value = 64 : index}> : () -> index
      %4 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %5 = "arith.divui"(%4, %2) : (index, index) -> index
      %6 = "arith.remui"(%4, %2) : (index, index) -> index
      %7 = "arith.muli"(%6, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %8 = "arith.constant"() <{value = dense<0.000000e+00> : vector<8xf16>}> : () -> vector<8xf16>
      %9 = "scf.for"(%0, %arg3, %1, %8) ({
      ^bb0(%arg6: index, %arg7: vector<8xf16>):
        %10 = "arith.muli"(%arg6, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %11 = "arith.addi"(%10, %5) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %12 = "vector.load"(%arg0, %11, %7) : (memref<8192x64xf16>, index, index) -> vector<8xf16>
        %13 = "vector.load"(%arg1, %11, %7) : (memref<8192x64xf16>, index, index) -> vector<8xf16>
        "vector.store"(%12, %arg4, %5, %7) : (vector<8xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>, index, index) -> ()
        "vector.store"(%13, %arg5, %5, %7) : (vector<8xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>, index, index) -> ()
        "amdgpu.lds_barrier"() : () -> ()
        %14 = "vector.load"(%arg4, %6, %7) : (memref<64x64xf16, #gpu.address_space<workgroup>>, index, index) -> vector<8xf16>
        %15 = "arith.mulf"(%14, %14) <{fastmath = #arith.fastmath<none>}> : (vector<8xf16>, vector<8xf16>) -> vector<8xf16>
        %16 = "vector.load"(%arg5, %6, %7) : (memref<64x64xf16, #gpu.address_space<workgroup>>, index, index) -> vector<8xf16>
        %17 = "arith.mulf"(%15, %16) <{fastmath = #arith.fastmath<none>}> : (vector<8xf16>, vector<8xf16>) -> vector<8xf16>
        %18 = "arith.addf"(%arg7, %17) <{fastmath = #arith.fastmath<none>}> : (vector<8xf16>, vector<8xf16>) -> vector<8xf16>
        "amdgpu.lds_barrier"() : () -> ()
        "scf.yield"(%18) : (vector<8xf16>) -> ()
      }) : (index, index, index, vector<8xf16>) -> vector<8xf16>
      "vector.store"(%9, %arg2, %5, %7) : (vector<8xf16>, memref<8192x64xf16>, index, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "attention", workgroup_attributions = 2 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

