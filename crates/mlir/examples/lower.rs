fn main() {
    let path = std::env::args().nth(1).expect("file");
    let text = std::fs::read_to_string(path).expect("read");
    match syncopt_mlir::to_kernels(&text) {
        Ok(ks) => ks
            .iter()
            .for_each(|k| print!("{}", syncopt_ir::print_kernel(k))),
        Err(d) => eprint!("{}", d.render("in", &text)),
    }
}
