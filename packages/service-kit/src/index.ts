export * from './principal';
export * from './context';
export * from './internal-auth';
export * from './health';
export * from './metrics';
export * from './clients';
export * from './server';
