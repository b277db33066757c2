//! Branches that never run: `if`s whose condition, over one induction variable of a loop with
//! constant bounds, takes one value in every iteration. The barrier pass skips their dead
//! branch; an `if` result is then the live branch's yield alone (`hazard::Accesses`).

use syncopt_ir::{BlockId, Bound, Cond, EntityRef, IfData, Kernel, StmtKind, ValueKind, Var};

/// Per statement, for an `if`: whether its then branch / its else branch never runs
/// (`(false, false)` for every other statement).
pub fn dead_branches(k: &Kernel) -> Vec<(bool, bool)> {
    let mut dead = vec![(false, false); k.stmts.len()];
    fold_conds(k, k.body, &mut Vec::new(), &mut dead);
    dead
}

/// `fold_cond` for every `if` under `b`, knowing the branches taken by the enclosing `if`s
/// (`known`): an `if` nested in a branch of another on the same induction variable runs only
/// in that branch's iterations (`if %i mod 2 == 0 { if %i mod 2 == 0 {..} else {dead} }`).
fn fold_conds<'k>(
    k: &'k Kernel,
    b: BlockId,
    known: &mut Vec<(&'k Cond, bool)>,
    dead: &mut [(bool, bool)],
) {
    for &s in &k.blocks[b].stmts {
        match &k.stmts[s].kind {
            StmtKind::If(d) => {
                dead[s.index()] = fold_cond(k, d, known);
                let (then_dead, else_dead) = dead[s.index()];
                if !then_dead {
                    known.push((&d.cond, true));
                    fold_conds(k, d.then_block, known, dead);
                    known.pop();
                }
                if let (Some(e), false) = (d.else_block, else_dead) {
                    known.push((&d.cond, false));
                    fold_conds(k, e, known, dead);
                    known.pop();
                }
            }
            kind => {
                for c in kind.child_block_ids() {
                    fold_conds(k, c, known, dead);
                }
            }
        }
    }
}

/// `(then dead, else dead)` for `d`: its condition, over one induction variable of a loop
/// with constant bounds (at most 4096 values) and constants only, is false / true in every
/// iteration in which the enclosing conditions `known` on the same variable take their
/// branches.
pub fn fold_cond(k: &Kernel, d: &IfData, known: &[(&Cond, bool)]) -> (bool, bool) {
    let terms = &d.cond.expr.terms;
    if terms.len() != 1 {
        return (false, false);
    }
    let Var::Value(v) = terms[0].0 else {
        return (false, false);
    };
    let same_var = |c: &Cond| matches!(c.expr.terms.as_slice(), [(Var::Value(w), _)] if *w == v);
    let ValueKind::Iv(ls) = k.values[v].kind else {
        return (false, false);
    };
    let StmtKind::For(f) = &k.stmts[ls].kind else {
        return (false, false);
    };
    let (Bound::Const(lo), Bound::Const(hi)) = (f.lo, f.hi) else {
        return (false, false);
    };
    if f.step <= 0 || hi <= lo || (hi - lo) / f.step > 4096 {
        return (false, false);
    }
    // The enclosing conditions count only where the verifier decides them too: it runs a loop
    // of at most 8 trips iteration by iteration, and tracks the residue of a variable that
    // conditions take modulo a constant; elsewhere it explores both branches.
    let unrolled = f.trips().exact().is_some_and(|n| (1..=8).contains(&n));
    let decided = |c: &Cond| unrolled || c.modulo.is_some_and(|m| m > 0 && m <= 64);
    let known: Vec<&(&Cond, bool)> = if decided(&d.cond) {
        known
            .iter()
            .filter(|(c, _)| same_var(c) && decided(c))
            .collect()
    } else {
        Vec::new()
    };
    let (mut any_true, mut any_false) = (false, false);
    let mut x = lo;
    while x < hi {
        if known.iter().any(|(c, taken)| c.eval(|_| x) != *taken) {
            x += f.step;
            continue;
        }
        if d.cond.eval(|_| x) {
            any_true = true;
        } else {
            any_false = true;
        }
        x += f.step;
    }
    (!any_true, !any_false)
}
