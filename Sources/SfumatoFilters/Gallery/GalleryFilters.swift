import SfumatoCore

/// The Metal Performance Shaders gallery filters (see the gallery issue); registered after the
/// Core Image set.
let _galleryFilters: [any Filter.Type] = []
