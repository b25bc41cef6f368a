export * from './labels/selector.js';
export * from './validation/names.js';
