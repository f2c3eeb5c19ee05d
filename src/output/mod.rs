//! Pure renderers for headless output.

pub mod items;
