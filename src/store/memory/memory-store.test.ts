import { describeStoreConformance } from '../testing/conformance.js';
import { openMemoryStore } from './index.js';

describeStoreConformance('memory', {
  open: () => Promise.resolve(openMemoryStore()),
});
