//! Integer expressions: affine in the thread id and loop/parameter values.

use crate::kernel::ValueId;

/// A variable of an affine expression.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    /// The thread index within the workgroup (0 .. waves * wave size).
    Tid,
    /// An induction variable or parameter.
    Value(ValueId),
}

/// `constant + sum(coef * var)`; terms are kept sorted by variable with no zero coefficient,
/// so equal expressions compare equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct AffineExpr {
    pub terms: Vec<(Var, i64)>,
    pub constant: i64,
}

impl AffineExpr {
    pub fn constant(c: i64) -> Self {
        AffineExpr {
            terms: Vec::new(),
            constant: c,
        }
    }
    pub fn var(v: Var) -> Self {
        AffineExpr {
            terms: vec![(v, 1)],
            constant: 0,
        }
    }
    /// Adds `coef * var`, keeping the canonical form.
    pub fn add_term(&mut self, var: Var, coef: i64) {
        match self.terms.binary_search_by_key(&var, |t| t.0) {
            Ok(i) => {
                self.terms[i].1 = self.terms[i].1.wrapping_add(coef);
                if self.terms[i].1 == 0 {
                    self.terms.remove(i);
                }
            }
            Err(i) if coef != 0 => self.terms.insert(i, (var, coef)),
            Err(_) => {}
        }
    }
    pub fn coef(&self, var: Var) -> i64 {
        self.terms.iter().find(|t| t.0 == var).map_or(0, |t| t.1)
    }
    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }
    pub fn mentions_tid(&self) -> bool {
        self.coef(Var::Tid) != 0
    }
    /// Evaluates with `lookup` giving each variable's value.
    pub fn eval(&self, mut lookup: impl FnMut(Var) -> i64) -> i64 {
        self.terms.iter().fold(self.constant, |acc, &(v, c)| {
            acc.wrapping_add(c.wrapping_mul(lookup(v)))
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
        }
    }
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Ge => a >= b,
            CmpOp::Gt => a > b,
        }
    }
}

/// A branch condition: `expr` alone means `expr != 0`; otherwise `expr CMP rhs`.
/// `modulo` (when set) reduces `expr` first: `(%i + 1) mod 2 == 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cond {
    pub expr: AffineExpr,
    pub modulo: Option<i64>,
    pub cmp: Option<(CmpOp, i64)>,
}

/// Threads `[lo, hi)`; `hi` may be `i64::MAX` for "no upper bound".
pub type TidRange = (i64, i64);

/// Every thread: no restriction.
pub const ALL_TIDS: TidRange = (0, i64::MAX);

impl Cond {
    /// For a condition on the thread id alone (`tid CMP C`, `tid + c CMP C`): the threads that
    /// take the then-branch and those that take the else-branch, as intervals. A condition of
    /// any other shape, or a side that is not an interval (`tid != C`), gives `ALL_TIDS`.
    pub fn tid_split(&self) -> (TidRange, TidRange) {
        let pure_tid = self.modulo.is_none()
            && self.expr.terms.len() == 1
            && self.expr.terms[0] == (Var::Tid, 1);
        let Some((op, rhs)) = self.cmp.filter(|_| pure_tid) else {
            return (ALL_TIDS, ALL_TIDS);
        };
        let r = rhs.saturating_sub(self.expr.constant);
        let r1 = r.saturating_add(1);
        match op {
            CmpOp::Lt => ((0, r), (r, i64::MAX)),
            CmpOp::Le => ((0, r1), (r1, i64::MAX)),
            CmpOp::Gt => ((r1, i64::MAX), (0, r1)),
            CmpOp::Ge => ((r, i64::MAX), (0, r)),
            CmpOp::Eq => ((r, r1), ALL_TIDS),
            CmpOp::Ne => (ALL_TIDS, (r, r1)),
        }
    }

    pub fn eval(&self, lookup: impl FnMut(Var) -> i64) -> bool {
        let mut v = self.expr.eval(lookup);
        if let Some(m) = self.modulo {
            v = v.rem_euclid(m);
        }
        match self.cmp {
            None => v != 0,
            Some((op, rhs)) => op.holds(v, rhs),
        }
    }
}
