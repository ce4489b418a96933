//! Tests across the chunk module: the specification's examples, chunked
//! Views, and the exhaustive verification of every map.

mod chunks;
mod exhaustive;
mod spec_examples;
