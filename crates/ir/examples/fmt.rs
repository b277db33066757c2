fn main() {
    let src = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    match syncopt_ir::parse(&src) {
        Ok(f) => print!("{}", syncopt_ir::print_file(&f)),
        Err(d) => eprint!("{}", d.render("in", &src)),
    }
}
