#include "gui/chart.hpp"

#include <QHash>

namespace scaleout::gui {

bool Chart::save_png(const QString& path, QSize size) { return image(size).save(path, "PNG"); }

QColor series_color(const QString& name) {
  static const QHash<QString, QColor> colors = {
      {"ps", QColor(0xd6, 0x27, 0x28)},
      {"ring", QColor(0x1f, 0x77, 0xb4)},
      {"torus2d", QColor(0x2c, 0xa0, 0x2c)},
      {"hierarchical_ring", QColor(0x94, 0x67, 0xbd)},
      {"halving_doubling", QColor(0xff, 0x7f, 0x0e)},
      {"tree", QColor(0x8c, 0x56, 0x4b)},
      {"compute", QColor(0x4c, 0x72, 0xb0)},
      {"exposed communication", QColor(0xdd, 0x84, 0x52)}};
  auto it = colors.find(name);
  if (it == colors.end()) it = colors.find(name.section(' ', 0, 0));
  return it == colors.end() ? QColor(Qt::darkGray) : *it;
}

}  // namespace scaleout::gui
