export { calculatorTool } from './tool.js';
