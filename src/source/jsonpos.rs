//! Finds the line and column of the value at a JSON path in the original text, so that errors
//! found after parsing (a duplicate id, a step naming an unknown item) point at the source.

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// Renders `items[3].comments[0].id`.
pub fn render(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    if out.is_empty() { ".".to_owned() } else { out }
}

/// 1-based (line, column) of the value at `path`, or None if the path is not in the text.
pub fn locate(text: &str, path: &[Seg]) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut p = Parser { bytes, pos: 0 };
    p.ws();
    for seg in path {
        match seg {
            Seg::Key(key) => p.enter_key(key)?,
            Seg::Index(i) => p.enter_index(*i)?,
        }
        p.ws();
    }
    Some(line_col(text, p.pos))
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        self.ws();
        if self.peek() == Some(b) {
            self.pos += 1;
            Some(())
        } else {
            None
        }
    }

    /// Reads a string literal and returns its raw (still escaped) content.
    fn string(&mut self) -> Option<String> {
        self.ws();
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        let raw = std::str::from_utf8(&self.bytes[start..self.pos]).ok()?;
        serde_json::from_str::<String>(raw).ok()
    }

    /// Skips one whole value.
    fn skip_value(&mut self) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                {
                    self.pos += 1;
                }
            }
        }
        Some(())
    }

    fn enter_key(&mut self, key: &str) -> Option<()> {
        self.eat(b'{')?;
        loop {
            self.ws();
            if self.peek() == Some(b'}') {
                return None;
            }
            let k = self.string()?;
            self.eat(b':')?;
            self.ws();
            if k == key {
                return Some(());
            }
            self.skip_value()?;
            self.ws();
            self.eat(b',')?;
        }
    }

    fn enter_index(&mut self, index: usize) -> Option<()> {
        self.eat(b'[')?;
        for _ in 0..index {
            self.ws();
            if self.peek() == Some(b']') {
                return None;
            }
            self.skip_value()?;
            self.eat(b',')?;
        }
        self.ws();
        if self.peek() == Some(b']') {
            return None;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values() {
        let text = "{\n  \"a\": [1, {\"b\": \"x\\\"]\"},\n    {\"c\": {\"id\": \"Z\"}}]\n}";
        let path = [
            Seg::Key("a".into()),
            Seg::Index(2),
            Seg::Key("c".into()),
            Seg::Key("id".into()),
        ];
        assert_eq!(locate(text, &path), Some((3, 18)));
        assert_eq!(render(&path), "a[2].c.id");
        assert_eq!(locate(text, &[Seg::Key("nope".into())]), None);
        assert_eq!(locate(text, &[Seg::Key("a".into()), Seg::Index(9)]), None);
    }
}
