export * from './cursor.js';
export * from './error.js';
export * from './integers.js';
export * from './list-pets.js';
export * from './pet.js';
export * from './response-headers.js';
