export { dnsLookupDeclaration, dnsLookupTool } from './tool.js';
