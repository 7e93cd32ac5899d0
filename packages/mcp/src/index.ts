export { BapMcpServer, runStdio, type McpOptions } from './mcpServer.js';
export { serveMcpHttp, type McpHttpOptions, type RunningMcpHttp } from './http.js';
export { selectTools, type Capability, type Tool } from './tools/index.js';
export { MCP_SERVER_INFO } from './version.js';
