export { default } from '../eslint.project.mjs';
