//! Typed entity ids and the arena that owns their data (after Cranelift's `PrimaryMap`).
//!
//! Ids are plain `u32` indices: cheap to copy, hash and sort, and impossible to mix up
//! across entity kinds because each kind has its own newtype.

use std::marker::PhantomData;

/// An id that indexes a [`PrimaryMap`].
pub trait EntityRef: Copy + Eq {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

/// Declares a `u32` newtype id that prints as `prefix` + index.
#[macro_export]
macro_rules! entity_id {
    ($(#[$m:meta])* $name:ident, $prefix:expr) => {
        $(#[$m])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);
        impl $crate::entity::EntityRef for $name {
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("entity index overflows u32"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
    };
}

/// Owns the data of every entity of one kind; the id is the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrimaryMap<K: EntityRef, V> {
    elems: Vec<V>,
    _k: PhantomData<K>,
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    pub fn new() -> Self {
        Self {
            elems: Vec::new(),
            _k: PhantomData,
        }
    }
    /// Makes room for `n` more entries (a parser that knows the input size avoids regrowing).
    pub fn reserve(&mut self, n: usize) {
        self.elems.reserve(n);
    }
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.elems.len());
        self.elems.push(v);
        k
    }
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// The id the next `push` will return.
    pub fn next_id(&self) -> K {
        K::new(self.elems.len())
    }
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
    pub fn get(&self, k: K) -> Option<&V> {
        self.elems.get(k.index())
    }
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        (0..self.elems.len()).map(K::new)
    }
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.elems.iter()
    }
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> {
        self.elems.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
}

impl<K: EntityRef, V> std::ops::Index<K> for PrimaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.elems[k.index()]
    }
}

impl<K: EntityRef, V> std::ops::IndexMut<K> for PrimaryMap<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.elems[k.index()]
    }
}

/// A side table keyed by entity id, filled with a default for ids never set.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    elems: Vec<V>,
    default: V,
    _k: PhantomData<K>,
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    pub fn with_default(default: V) -> Self {
        Self {
            elems: Vec::new(),
            default,
            _k: PhantomData,
        }
    }
    pub fn get(&self, k: K) -> &V {
        self.elems.get(k.index()).unwrap_or(&self.default)
    }
    pub fn get_mut(&mut self, k: K) -> &mut V {
        if k.index() >= self.elems.len() {
            self.elems.resize(k.index() + 1, self.default.clone());
        }
        &mut self.elems[k.index()]
    }
    pub fn set(&mut self, k: K, v: V) {
        *self.get_mut(k) = v;
    }
}
