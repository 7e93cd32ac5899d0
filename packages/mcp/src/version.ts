/** Kept in step with package.json by a test. */
export const MCP_SERVER_INFO = { name: '@browseragentprotocol/mcp', version: '0.1.0' } as const;
