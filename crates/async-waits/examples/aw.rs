//! Runs the pass alone on a file: `cargo run -p syncopt-async-waits --example aw -- FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: aw FILE");
    let src = std::fs::read_to_string(&path).expect("read");
    let mut target = None;
    for m in syncopt_ir::parse_file(&src) {
        let mut m = match m {
            Ok(m) => m,
            Err(d) => {
                eprint!("{}", d.render(&path, &src));
                continue;
            }
        };
        if m.target.is_some() {
            target = m.target.clone();
        }
        let t = syncopt_targets::Target::from_name(target.as_deref().unwrap_or("gfx950"))
            .expect("target");
        for k in &mut m.kernels {
            let r = syncopt_async_waits::run(k, t, &Default::default());
            for d in &r.diagnostics {
                eprint!("{}", d.render(&path, &src));
            }
        }
        println!("{}", syncopt_ir::print_module(&m));
    }
}
