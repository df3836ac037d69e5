// server.h — tack-mcp: every tack tool as a Model Context Protocol server over stdio (JSON-RPC
// 2.0, one message a line). Unlike a server that reimplements file access, each tools/call runs
// the tool's own binary with an argv built from the arguments, so every call keeps that tool's
// contract, confinement and kernel-enforced authority; the tool list, schemas and annotations
// come from the tools' own `introspect` and `skill`. The operator's --root is the outer bound;
// roots a client declares only narrow it.
#pragma once

namespace mcp {

int serve(int argc, char** argv);

}  // namespace mcp
