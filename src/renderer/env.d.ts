// Vite's client types: CSS imports and import.meta.env.
/// <reference types="vite/client" />
