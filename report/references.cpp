#include "references.hpp"

#include "assets.hpp"

namespace apod::report {

nlohmann::ordered_json reference_figures() {
  nlohmann::ordered_json documents = nlohmann::ordered_json::array();
  for (const auto* asset :
       {&assets::reference_best_practices_guide, &assets::reference_stich_slides,
        &assets::reference_fasiha_gist, &assets::reference_notes_on_cuda,
        &assets::reference_pascal_tuning_guide})
    documents.push_back(nlohmann::ordered_json::parse(asset->text));
  return documents;
}

} // namespace apod::report
