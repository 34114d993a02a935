package io.kvrouter.jinja;

import java.util.List;
import java.util.Map;

/** The {@code loop} variable of a for loop. */
final class Loop {
  private final List<?> items;
  int index0;
  private Object lastChanged = this;

  Loop(List<?> items) {
    this.items = items;
  }

  Object attribute(String name) {
    int n = items.size();
    switch (name) {
      case "index":
        return (long) index0 + 1;
      case "index0":
        return (long) index0;
      case "revindex":
        return (long) (n - index0);
      case "revindex0":
        return (long) (n - index0 - 1);
      case "first":
        return index0 == 0;
      case "last":
        return index0 == n - 1;
      case "length":
        return (long) n;
      case "depth":
        return 1L;
      case "depth0":
        return 0L;
      case "previtem":
        return index0 > 0 ? items.get(index0 - 1) : new Undefined("there is no previous item");
      case "nextitem":
        return index0 < n - 1 ? items.get(index0 + 1) : new Undefined("there is no next item");
      case "cycle":
        return (PyCallable)
            (List<Object> args, Map<String, Object> kw) -> {
              if (args.isEmpty()) {
                throw TemplateError.typeError("no items for cycling given");
              }
              return args.get(index0 % args.size());
            };
      case "changed":
        return (PyCallable)
            (List<Object> args, Map<String, Object> kw) -> {
              Object value = new PyTuple(args.toArray());
              if (lastChanged == this || !Py.eq(lastChanged, value)) {
                lastChanged = value;
                return true;
              }
              return false;
            };
      default:
        return Undefined.attr(this, name);
    }
  }

  @Override
  public String toString() {
    return "<LoopContext " + (index0 + 1) + "/" + items.size() + ">";
  }
}
