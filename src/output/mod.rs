//! Pure renderers for headless output, and the pass every output takes on its way out
//! (`safe`: terminal-safe text and JSON).

pub mod files;
pub mod items;
// The one way to count things in words, below every module that prints (review and source use
// it too): `crate::plural`, named here as well for the renderers.
pub use crate::plural;
pub mod safe;
