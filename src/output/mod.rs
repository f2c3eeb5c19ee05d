//! Pure renderers for headless output.

pub mod files;
pub mod items;
