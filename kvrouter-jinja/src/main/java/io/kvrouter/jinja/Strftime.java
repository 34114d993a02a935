package io.kvrouter.jinja;

import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** Python's {@code datetime.strftime} in the C locale (English names), glibc's {@code %-d} too. */
final class Strftime {
  private Strftime() {}

  static String format(LocalDateTime t, String fmt) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < fmt.length(); i++) {
      char c = fmt.charAt(i);
      if (c != '%' || i + 1 >= fmt.length()) {
        sb.append(c);
        continue;
      }
      char d = fmt.charAt(++i);
      boolean noPad = false;
      if (d == '-' && i + 1 < fmt.length()) {
        noPad = true;
        d = fmt.charAt(++i);
      }
      int hour12 = t.getHour() % 12 == 0 ? 12 : t.getHour() % 12;
      switch (d) {
        case 'Y' -> sb.append(t.getYear());
        case 'y' -> pad(sb, t.getYear() % 100, 2, noPad);
        case 'm' -> pad(sb, t.getMonthValue(), 2, noPad);
        case 'd' -> pad(sb, t.getDayOfMonth(), 2, noPad);
        case 'e' -> {
          if (noPad) {
            sb.append(t.getDayOfMonth());
          } else {
            String s = Integer.toString(t.getDayOfMonth());
            sb.append(s.length() < 2 ? " " + s : s);
          }
        }
        case 'H' -> pad(sb, t.getHour(), 2, noPad);
        case 'I' -> pad(sb, hour12, 2, noPad);
        case 'M' -> pad(sb, t.getMinute(), 2, noPad);
        case 'S' -> pad(sb, t.getSecond(), 2, noPad);
        case 'f' -> pad(sb, t.getNano() / 1000, 6, false);
        case 'j' -> pad(sb, t.getDayOfYear(), 3, noPad);
        case 'p' -> sb.append(t.getHour() < 12 ? "AM" : "PM");
        case 'B' -> sb.append(t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
        case 'b', 'h' -> sb.append(t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
        case 'A' -> sb.append(t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
        case 'a' -> sb.append(t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
        case 'w' -> sb.append(t.getDayOfWeek().getValue() % 7);
        case 'u' -> sb.append(t.getDayOfWeek().getValue());
        case 'F' -> sb.append(format(t, "%Y-%m-%d"));
        case 'T' -> sb.append(format(t, "%H:%M:%S"));
        case 'D' -> sb.append(format(t, "%m/%d/%y"));
        case 'R' -> sb.append(format(t, "%H:%M"));
        case '%' -> sb.append('%');
        default -> throw TemplateError.unsupported("strftime directive %" + d);
      }
      Limits.checkBuilt(sb, "strftime_now");
    }
    return sb.toString();
  }

  private static void pad(StringBuilder sb, int v, int width, boolean noPad) {
    String s = Integer.toString(v);
    if (!noPad) {
      for (int i = s.length(); i < width; i++) {
        sb.append('0');
      }
    }
    sb.append(s);
  }
}
