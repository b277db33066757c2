use syncopt_analysis::hazard::Accesses;
#[test]
fn dbg2() {
    let path = std::env::var("K").unwrap();
    let th: u64 = std::env::var("TH").unwrap().parse().unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let f = syncopt_ir::parse(&src).unwrap();
    let k = &f.chunks[0].kernels[0];
    let mut acc = Accesses::collect_with_threads(k, Some(th));
    acc.bind_parity(k);
    acc.bind_first_ivs(k);
    for (i, d) in acc.descs.iter().enumerate() {
        eprintln!(
            "desc {i}: mode {:?} ivs {:?} only {:?} regions {:?} lane {:?} forms {:?} binds {:?}",
            d.mode,
            d.ivs,
            d.only,
            d.regions
                .iter()
                .map(|r| (
                    r.root,
                    r.range,
                    r.handle,
                    r.slot.as_ref().map(|s| (&s.index, s.count, s.inner))
                ))
                .collect::<Vec<_>>(),
            d.lane.as_ref().map(|l| (&l.expr, &l.bases)),
            acc.iv_forms.get(i),
            acc.binds.get(i)
        );
    }
    for a in &acc.accesses {
        eprintln!("access stmt {:?} desc {}", a.stmt, a.desc);
    }
    let n = acc.descs.len() as u32;
    for a in 0..n {
        for b in 0..n {
            for c in 0..3u8 {
                if acc.conflict_across_waves(a, c, b, 64) {
                    eprintln!("conflict {a} {c} {b}");
                }
            }
        }
    }
}
