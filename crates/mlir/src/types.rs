//! Just enough of MLIR's memref type syntax to size buffers and place views.

/// What a memref type says about the memory behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct MemrefType {
    /// Static dimensions; `None` for a dynamic one (`?`).
    pub shape: Vec<Option<u64>>,
    pub elem_bytes: u64,
    /// `#gpu.address_space<workgroup>` or numeric address space 3.
    pub workgroup: bool,
    /// Strided layout: element strides and offset (`None` when dynamic), if given.
    pub strides: Option<Vec<Option<u64>>>,
    pub offset: Option<Option<u64>>,
}

impl MemrefType {
    /// Bytes spanned by the memref from its base pointer, when static.
    pub fn size_bytes(&self) -> Option<u64> {
        let dims: Option<Vec<u64>> = self.shape.iter().copied().collect();
        let dims = dims?;
        match &self.strides {
            None => Some(dims.iter().product::<u64>().max(1) * self.elem_bytes),
            Some(strides) => {
                let strides: Option<Vec<u64>> = strides.iter().copied().collect();
                let strides = strides?;
                let last: u64 = dims
                    .iter()
                    .zip(&strides)
                    .map(|(d, s)| d.saturating_sub(1) * s)
                    .sum();
                Some((last + 1) * self.elem_bytes)
            }
        }
    }
    /// Byte range `[lo, hi)` the memref covers relative to its base pointer, when static.
    pub fn byte_range(&self) -> Option<(u64, u64)> {
        let off = match self.offset {
            None => 0,
            Some(o) => o?,
        };
        let size = self.size_bytes()?;
        Some((off * self.elem_bytes, off * self.elem_bytes + size))
    }
}

fn elem_bytes(t: &str) -> u64 {
    let t = t.trim();
    if let Some(inner) = t.strip_prefix("vector<").and_then(|s| s.strip_suffix('>')) {
        let parts: Vec<&str> = inner.split('x').collect();
        let (dims, elem) = parts.split_at(parts.len() - 1);
        let n: u64 = dims.iter().filter_map(|d| d.parse::<u64>().ok()).product();
        return n.max(1) * elem_bytes(elem[0]);
    }
    let digits: String = t
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    match t {
        "index" => 8,
        _ if t.starts_with("f8") || t.starts_with("f6") || t.starts_with("f4") => 1,
        _ => digits
            .parse::<u64>()
            .map(|b| b.div_ceil(8).max(1))
            .unwrap_or(4),
    }
}

/// Parses the first `memref<...>` in `s`.
pub fn parse_memref(s: &str) -> Option<MemrefType> {
    let start = s.find("memref<")? + "memref<".len();
    let mut depth = 1;
    let mut end = start;
    for (i, c) in s[start..].char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    end = start + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let body = &s[start..end];
    let parts = crate::reader::split_top(body);
    let first = parts.first()?;
    // Leading `NNx` / `?x` segments are dimensions; the rest is the element type.
    let mut shape = Vec::new();
    let mut elem = first.as_str();
    while let Some((d, tail)) = elem.split_once('x') {
        if d == "?" {
            shape.push(None);
        } else if !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()) {
            shape.push(d.parse::<u64>().ok());
        } else {
            break;
        }
        elem = tail;
    }
    let mut ty = MemrefType {
        shape,
        elem_bytes: elem_bytes(elem),
        workgroup: false,
        strides: None,
        offset: None,
    };
    for p in &parts[1..] {
        if p.contains("workgroup") || p.trim() == "3" {
            ty.workgroup = true;
        }
        if let Some(st) = p.trim().strip_prefix("strided<") {
            let inner = st.strip_suffix('>').unwrap_or(st);
            if let (Some(a), Some(b)) = (inner.find('['), inner.find(']')) {
                ty.strides = Some(
                    inner[a + 1..b]
                        .split(',')
                        .map(|x| x.trim().parse::<u64>().ok())
                        .collect(),
                );
            }
            if let Some(o) = inner.find("offset:") {
                let v = inner[o + 7..].trim().trim_end_matches('>');
                ty.offset = Some(v.trim().parse::<u64>().ok());
            } else {
                ty.offset = Some(Some(0));
            }
        }
    }
    Some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_spaces() {
        let t = parse_memref("memref<32x64xf16, #gpu.address_space<workgroup>>").unwrap();
        assert!(t.workgroup);
        assert_eq!(t.size_bytes(), Some(32 * 64 * 2));
        let t = parse_memref("memref<16x16xf32, strided<[64, 1], offset: 1040>, 3>").unwrap();
        assert!(t.workgroup);
        assert_eq!(
            t.byte_range(),
            Some((1040 * 4, (1040 + 15 * 64 + 15 + 1) * 4))
        );
        let t = parse_memref("memref<?xf32>").unwrap();
        assert!(!t.workgroup);
        assert_eq!(t.size_bytes(), None);
        let t = parse_memref("memref<4xvector<4xf32>, 3>").unwrap();
        assert_eq!(t.size_bytes(), Some(64));
    }
}
