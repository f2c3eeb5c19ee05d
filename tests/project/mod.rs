//! The project keeps its own promises: the docs match the code and the settings schema, and no module circles.

mod docs;
mod module_graph;
mod rooms;
mod screenshots;
