export const SERVER_NAME = 'bap-server-playwright';
export const SERVER_VERSION = '0.1.0';
