//! Words of a command line split as a POSIX shell splits them, with no shell run and nothing
//! expanded: for the editor's command line (`$VISUAL`, `code --wait`) and the
//! `[console] editor_line_arg` template, which the console runs as a program and arguments.

/// Splits `s` into words as a POSIX shell does, without expanding anything: blanks separate
/// words; `'…'` keeps everything; `"…"` keeps everything but `\"`, `\\`, `\$` and `` \` ``;
/// outside quotes `\` keeps the next character.
pub fn split(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a single quote is not closed".to_owned()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a double quote is not closed".to_owned()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a double quote is not closed".to_owned()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("it ends with a lone backslash".to_owned()),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Guards the word splitter: quotes, escapes, no expansion, and refused input.
    #[test]
    fn words_split_like_a_shell_without_one() {
        assert_eq!(
            split(r#"a "b c" 'd $e' f\ g "h\"i" $HOME"#).unwrap(),
            ["a", "b c", "d $e", "f g", "h\"i", "$HOME"]
        );
        assert_eq!(split("  ").unwrap(), Vec::<String>::new());
        assert_eq!(split("''").unwrap(), [""]);
        assert!(split("\"open").is_err());
        assert!(split("x\\").is_err());
    }
}
