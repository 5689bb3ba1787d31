#include "gui/chart.hpp"

#include <QHash>
#include <QPainter>
#include <QSaveFile>

#include "gui/svg_export.hpp"

namespace scaleout::gui {

bool Chart::save(const QString& path, QSize size) {
  if (path.endsWith(".svg", Qt::CaseInsensitive))
    return save_svg(path, size, [&](QPainter& painter) { paint(painter, size); });
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || !image(size).save(&file, "PNG")) return false;
  return file.commit();
}

QColor series_color(const QString& name) {
  static const QHash<QString, QColor> colors = {
      {"ps", QColor(0xd6, 0x27, 0x28)},
      {"ring", QColor(0x1f, 0x77, 0xb4)},
      {"torus2d", QColor(0x2c, 0xa0, 0x2c)},
      {"hierarchical_ring", QColor(0x94, 0x67, 0xbd)},
      {"halving_doubling", QColor(0xff, 0x7f, 0x0e)},
      {"tree", QColor(0x8c, 0x56, 0x4b)},
      {"hierarchical_allreduce", QColor(0xe3, 0x77, 0xc2)},
      {"hierarchical_halving_doubling", QColor(0xbc, 0xbd, 0x22)},
      {"compute", QColor(0x4c, 0x72, 0xb0)},
      {"exposed communication", QColor(0xdd, 0x84, 0x52)},
      {"pipeline bubble", QColor(0x99, 0x99, 0x99)},
      {"best split", QColor(0x21, 0x21, 0x21)},
      {"held to a tolerance", QColor(0x4c, 0x72, 0xb0)},
      {"known gap", QColor(0xbb, 0xbb, 0xbb)},
      {"calibration (an input)", QColor(0xdd, 0x84, 0x52)},
      {"best split MFU", QColor(0x21, 0x21, 0x21)},
      {"plan's split", QColor(0x1f, 0x77, 0xb4)},
      // a model-parallel step by kind
      {"tensor", QColor(0xdd, 0x84, 0x52)},
      {"expert", QColor(0x81, 0x72, 0xb2)},
      {"context", QColor(0x93, 0x78, 0x60)},
      {"data", QColor(0xc4, 0x4e, 0x52)},
      {"bubble", QColor(0x99, 0x99, 0x99)},
      // goodput of a long run: the expectation dark, the sampled P10 and P90 light
      {"expected", QColor(0x21, 0x21, 0x21)},
      {"P10", QColor(0xdd, 0x84, 0x52)},
      {"P90", QColor(0x55, 0xa8, 0x68)},
      // memory per device
      {"parameters", QColor(0x4c, 0x72, 0xb0)},
      {"gradients", QColor(0x55, 0xa8, 0x68)},
      {"optimizer", QColor(0xc4, 0x4e, 0x52)},
      {"activations", QColor(0x81, 0x72, 0xb2)}};
  auto it = colors.find(name);
  if (it == colors.end()) it = colors.find(name.section(' ', 0, 0));
  return it == colors.end() ? QColor(Qt::darkGray) : *it;
}

}  // namespace scaleout::gui
