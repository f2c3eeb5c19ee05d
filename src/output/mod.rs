//! Pure renderers for headless output, and the pass every output takes on its way out
//! (`safe`: terminal-safe text and JSON).

pub mod files;
pub mod items;
pub mod plural;
pub mod safe;
