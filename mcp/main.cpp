// tack-mcp — every tack tool as a Model Context Protocol server over stdio (see server.h).
#include "mcp/server.h"

int main(int argc, char** argv) { return mcp::serve(argc, argv); }
