use super::*;

fn kernel(src: &str) -> (Kernel, Target) {
    let f = syncopt_ir::parse(src).expect("parses");
    let m = &f.chunks[0];
    let t = Target::from_name(m.target.as_deref().unwrap_or("sm_90")).unwrap();
    (m.kernels[0].clone(), t)
}

fn emit(src: &str) -> String {
    let (k, t) = kernel(src);
    cuda_exact(&k, t).unwrap()
}

const GEMM: &str = "target sm_90
kernel @gemm(%n = 4) waves 4 {
  %G = buffer global 65536
  %A = buffer workgroup 4096
  %A0 = view %A[0:2048]
  %A1 = view %A[2048:4096]
  op \"cp\" async write %A0, read %G
  cp_async.commit
  for %k = 0 to %n iter(%cur = %A0, %nxt = %A1) {
    op \"cp\" async write %nxt, read %G[tid + 128 * %k]
    cp_async.commit
    cp_async.wait 1
    barrier
    op \"ld\" read %cur
    barrier
    yield %nxt, %cur
  }
}
";

#[test]
fn double_buffer_emits_cp_async_and_loop_carried_handles() {
    let cu = emit(GEMM);
    assert!(cu.contains("__shared__ __align__(16) uint32_t arena[SK_SHARED_WORDS];"));
    assert!(cu.contains("#define SK_THREADS 128"));
    assert!(cu.contains("#define SK_SHARED_WORDS 1024LL"));
    assert!(cu.contains("__pipeline_memcpy_async(&arena["), "{cu}");
    assert_eq!(cu.matches("__pipeline_commit();").count(), 2);
    assert!(cu.contains("__pipeline_wait_prior(1);"));
    assert_eq!(cu.matches("__syncthreads();  // barrier").count(), 2);
    // The handles: %cur and %nxt are loop-carried offsets swapped at the yield.
    assert!(cu.contains("for (long long v"), "{cu}");
    assert!(cu.contains("_o = sk_y0_o;"));
    // Parameter %n is a kernel argument with its default on the host.
    assert!(cu.contains("= 4LL;"));
    assert!(cu.contains("printf(\"%d %016llx\\n\""));
    // Whole-buffer read: reversed, (128 - 1 - 16 - tid) mod 128 = (111 - tid) mod 128. The
    // copy before the loop (op 0, no loop: rotation step 0) rotates by a quarter warp, 8; the
    // copy in the loop (op 1) by 8 * (2 ((1 + k) mod 8) + 1): 8 rotations for 4 warps, the
    // step taking the loop's induction variable (truncated to 32 bits, as in the model).
    assert!(cu.contains("((111u + 128u - sk_tid32) % 128u)"), "{cu}");
    assert!(cu.contains("((sk_tid32 + 8u) % 128u)"), "{cu}");
    assert!(
        cu.contains("((sk_tid32 + 8u * (2u * ((1u + (uint32_t)v")
            && cu.contains(") % 8u) + 1u)) % 128u)"),
        "{cu}"
    );
}

#[test]
fn emission_is_deterministic_and_balanced() {
    let a = emit(GEMM);
    let b = emit(GEMM);
    assert_eq!(a, b);
    assert_eq!(a.matches('{').count(), a.matches('}').count());
    assert_eq!(a.matches('(').count(), a.matches(')').count());
}

#[test]
fn split_and_named_barriers() {
    let cu = emit(
        "target sm_90\nkernel @k() waves 8 {\n  %A = buffer workgroup 1024\n  op \"st\" write %A[tid]\n  barrier.signal -1\n  barrier.wait -1\n  op \"ld\" read %A[255 - tid]\n  barrier id 3 threads 128\n  barrier exec\n}\n",
    );
    assert!(cu.contains("sk_mbar_arrive(&sk_mbar[0]);"));
    assert!(cu.contains("sk_mbar_wait(&sk_mbar[0], sk_phase[0]); sk_phase[0] ^= 1u;"));
    assert!(cu.contains("mbarrier.init.shared::cta.b64"));
    assert!(
        cu.contains("asm volatile(\"bar.sync 3, 128;\" ::: \"memory\");"),
        "{cu}"
    );
    // An index store: one word, k = 0.
    assert!(
        cu.contains("const long long w = (0LL + (1LL) * sk_tid);"),
        "{cu}"
    );
    assert!(
        cu.contains("const long long w = (255LL + (-1LL) * sk_tid);"),
        "{cu}"
    );
}

#[test]
fn uniform_if_and_slot_views() {
    let cu = emit(
        "target sm_80\nkernel @k(%c = 1) waves 2 {\n  %A = buffer workgroup 512\n  for %i = 0 to 4 {\n    %s = view %A slot (%i + 1) mod 2\n    if uniform (%i) mod 2 == 0 {\n      op \"st\" write %s[tid]\n    } else {\n      op \"add\" atomic %s[tid]\n    }\n    barrier\n  }\n}\n",
    );
    assert!(cu.contains("sk_mod((1LL + (1LL) * v"), "{cu}");
    assert!(cu.contains("if (sk_mod((0LL + (1LL) * v"), "{cu}");
    assert!(cu.contains("atomicAdd(&arena["));
    assert!(cu.contains("(uint32_t)v"));
}

#[test]
fn large_shared_memory_goes_dynamic() {
    let cu = emit("target sm_90\nkernel @k() waves 4 {\n  %A = buffer workgroup 131072\n  op \"st\" write %A\n}\n");
    assert!(cu.contains("extern __shared__ __align__(16) uint32_t arena[];"));
    assert!(cu.contains("cudaFuncAttributeMaxDynamicSharedMemorySize"));
}

#[test]
fn refusals_are_diagnostics() {
    let (k, _) = kernel("target gfx950\nkernel @k() {\n  %A = buffer workgroup 64\n}\n");
    let e = cuda_exact(&k, Target::Gfx950).unwrap_err();
    assert!(e.message.contains("NVIDIA"));
    let (k, t) = kernel("target sm_90\nkernel @k(%n) {\n  for %i = 0 to %n {\n  }\n}\n");
    assert!(cuda_exact(&k, t).unwrap_err().message.contains("default"));
    let (k, t) = kernel("target sm_90\nkernel @k() {\n  %A = buffer workgroup 6\n}\n");
    assert!(cuda_exact(&k, t)
        .unwrap_err()
        .message
        .contains("multiple of 4"));
}

#[test]
fn membar_places_a_barrier_before_each_conflicting_access() {
    let (mut k, t) = kernel(GEMM);
    let n = membar::place(&mut k).unwrap();
    let text = syncopt_ir::print_kernel(&k);
    // Before the loop's read (RAW with the copy) and before the next copy (WAR), inside the loop.
    assert_eq!(n, 2, "{text}");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let ld = lines
        .iter()
        .position(|l| l.starts_with("op \"ld\""))
        .unwrap();
    assert_eq!(lines[ld - 1], "barrier", "{text}");
    let cp = lines
        .iter()
        .rposition(|l| l.starts_with("op \"cp\""))
        .unwrap();
    assert_eq!(lines[cp - 1], "barrier", "{text}");
    assert!(cuda_exact(&k, t).is_ok());
}

#[test]
fn membar_hoists_barriers_out_of_divergent_ifs() {
    let (mut k, _) = kernel(
        "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 256\n  op \"st\" write %A[tid]\n  if divergent tid < 32 {\n    op \"ld\" read %A[tid + 1]\n  }\n}\n",
    );
    assert_eq!(membar::place(&mut k).unwrap(), 1);
    let text = syncopt_ir::print_kernel(&k);
    let b = text.find("barrier").unwrap();
    assert!(b < text.find("if divergent").unwrap(), "{text}");
}

/// A guarded-build emitter of `k` (128 threads, warps of 32), its body emitted.
fn guarded(k: &Kernel, t: Target) -> Emitter<'_> {
    let mut e = Emitter {
        k,
        target: t,
        threads: 128,
        wave: 32,
        layout: syncopt_interp::model::layout(k).unwrap(),
        mems: vec![None; k.values.len()],
        ord: syncopt_interp::op_ordinals(k),
        ivs: Vec::new(),
        mbar: BTreeMap::new(),
        out: String::new(),
        indent: 1,
        uses_async: false,
        guard: true,
        barriers: 0,
    };
    e.block(k.body).unwrap();
    e
}

#[test]
fn guarded_build_numbers_barriers_in_program_order() {
    let (k, t) = kernel(GEMM);
    let e = guarded(&k, t);
    assert!(e.out.contains("if (sk_skip != 0) __syncthreads();"));
    assert!(e.out.contains("if (sk_skip != 1) __syncthreads();"));
    let ops = e.out.matches("{  // op \"").count();
    assert!(ops > 0);
    assert_eq!(e.out.matches("sk_delay(sk_stagger);").count(), ops);
    let cu = e.finish(&[]);
    assert!(cu.contains("Guarded build: 2 barriers"));
    assert!(cu.contains("--skip"));
    // --stagger: every op is preceded by the per-warp delay, a kernel argument of its own.
    assert!(cu.contains("int sk_skip, int sk_stagger"));
    assert!(cu.contains("\"--stagger\""));
    assert!(cu.contains("(d_gin, d_gout, d_sums, sk_skip, sk_stagger)"));
}

/// Guarded builds read an atomic's shared word before the atomic (racecheck's view of it);
/// plain builds emit the atomic alone. Global atomics need no such read (no hazard there).
#[test]
fn guarded_build_shadows_shared_atomics_with_a_read() {
    let src = include_str!("../tests/data/atomic_vs_store_sm_90.sk");
    let plain = emit(src);
    assert!(plain.contains("atomicAdd(&arena["));
    assert!(!plain.contains("(void)*(volatile uint32_t*)"));
    let (k, t) = kernel(src);
    let e = guarded(&k, t);
    let read = e
        .out
        .find("(void)*(volatile uint32_t*)&arena[")
        .expect("shadow read");
    assert!(read < e.out.find("atomicAdd(&arena[").unwrap(), "{}", e.out);
}

#[test]
fn plain_build_has_no_stagger() {
    let cu = emit(GEMM);
    assert!(!cu.contains("sk_delay(sk_stagger);"));
    assert!(!cu.contains("int sk_stagger"));
}

#[test]
fn membar_orders_reads_after_the_wait_that_lands_a_copy() {
    // The copy of %Q lands at the wait inside the loop; the WAR barrier at the top of the body
    // comes before that wait, so another barrier must follow it before %Q is read.
    let (mut k, _) = kernel(
        "target sm_90\nkernel @k(%n = 2) waves 2 {\n  %G = buffer global 4096\n  %Q = buffer workgroup 256\n  %B = buffer workgroup 256\n  op \"lq\" async write %Q, read %G[0:256]\n  cp_async.commit\n  for %j = 0 to %n {\n    op \"lb\" async write %B[tid], read %G[tid]\n    cp_async.commit\n    cp_async.wait 0\n    op \"q\" read %Q\n    op \"b\" read %B\n  }\n}\n",
    );
    membar::place(&mut k).unwrap();
    let text = syncopt_ir::print_kernel(&k);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let q = lines
        .iter()
        .position(|l| l.starts_with("op \"q\""))
        .unwrap();
    assert_eq!(lines[q - 1], "barrier", "{text}");
    let w = lines.iter().position(|l| *l == "cp_async.wait 0").unwrap();
    assert!(w < q - 1, "{text}");
}
