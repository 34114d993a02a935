package io.kvrouter.jinja;

import java.util.List;
import java.util.Map;

/** Something a template can call: a global function, a macro, a bound method. */
interface PyCallable {
  Object call(List<Object> args, Map<String, Object> kwargs);
}
