// simdjson_floor — does nothing, linked as jsonq is (dynamically, against Debian's shared
// simdjson and so libstdc++): the start-up no jsonq can go below on this machine. make bench
// times it next to jsonq and /usr/bin/true.
#include <simdjson.h>

int main(int argc, char**) {
  // Referenced so the library is really linked; never run.
  if (argc > 1000) return static_cast<int>(simdjson::get_active_implementation()->name().size());
  return 0;
}
