//! Grundy values as a scatter plot, in SVG or PNG.

use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use super::{PictureError, Plot};

/// A plot's width and height, in pixels (and SVG units).
pub const SIZE: (u32, u32) = (900, 480);

/// The font a plot's text is measured and drawn with: DejaVu Sans, bundled
/// so that a PNG needs no system font (`assets/fonts/LICENSE`).
const FONT: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/fonts/DejaVuSans.ttf"
));

/// Registers the bundled font as `sans-serif`, once.
fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // A font that does not load leaves the name unregistered, and the
        // plot then fails with plotters' "font unavailable", not a panic.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// The most colours the legend names; past them it says how many more.
const LEGEND_ENTRIES: usize = 16;

/// One point per position: x the first binding, y its Grundy value, and
/// colour the second binding (if any). A period is marked (its caption says
/// whether it is proven or only apparent): a red line where the preperiod
/// ends and a thin one at each period after it.
pub fn plot(plot: &Plot) -> Result<String, PictureError> {
    register_fonts();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw(plot, &root).map_err(|error| PictureError::Plot(error.to_string()))?;
    }
    Ok(svg)
}

/// The same plot as a PNG file's bytes, `SIZE` pixels, RGB.
pub fn plot_png(plot: &Plot) -> Result<Vec<u8>, PictureError> {
    register_fonts();
    let (width, height) = SIZE;
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
        draw(plot, &root).map_err(|error| PictureError::Plot(error.to_string()))?;
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&pixels))
        .map_err(|error| PictureError::Plot(error.to_string()))?;
    Ok(png)
}

fn draw<DB>(plot: &Plot, root: &DrawingArea<DB, Shift>) -> Result<(), Box<dyn std::error::Error>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let xs = plot.points.iter().map(|&(x, ..)| x);
    let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
    let top = plot.points.iter().map(|&(.., y)| y).max().unwrap_or(0) as i64 + 1;
    let mut caption = format!("{}: Grundy values", plot.game);
    if let Some(period) = &plot.period {
        let seen = if period.proven { "" } else { "apparent " };
        caption += &format!(
            " ({seen}period {} from n = {})",
            period.period, period.preperiod
        );
    }
    if let Some(second) = plot.names.get(1) {
        caption += &format!(", colour by {second}");
    }
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(x0..x1 + 1, 0..top)?;
    chart
        .configure_mesh()
        .x_desc(plot.names[0].as_str())
        .y_desc("Grundy value")
        .disable_x_mesh()
        .draw()?;
    if let Some(period) = &plot.period {
        let start = period.preperiod as i64;
        let line = |x: i64, style: ShapeStyle| PathElement::new(vec![(x, 0), (x, top)], style);
        if (x0..=x1).contains(&start) {
            chart.draw_series([line(start, RED.stroke_width(2))])?;
        }
        let marks = (1..)
            .map(|k| start + k * period.period as i64)
            .take_while(|&x| x <= x1)
            .filter(|&x| x >= x0);
        chart.draw_series(marks.map(|x| line(x, RED.mix(0.3).stroke_width(1))))?;
    }
    let colours: Vec<i64> = {
        let mut seen: Vec<i64> = plot.points.iter().filter_map(|&(_, c, _)| c).collect();
        seen.sort_unstable();
        seen.dedup();
        seen
    };
    match plot.names.get(1) {
        None => {
            chart.draw_series(
                plot.points
                    .iter()
                    .map(|&(x, _, y)| Circle::new((x, y as i64), 3, BLUE.filled())),
            )?;
        }
        Some(second) => {
            // One series a colour, each named in the legend; past
            // LEGEND_ENTRIES colours the legend says how many it leaves out.
            for (index, &colour) in colours.iter().enumerate() {
                let style = Palette99::pick(index).filled();
                let series = chart.draw_series(
                    plot.points
                        .iter()
                        .filter(|&&(_, c, _)| c == Some(colour))
                        .map(|&(x, _, y)| Circle::new((x, y as i64), 3, style)),
                )?;
                match index.cmp(&(LEGEND_ENTRIES - 1)) {
                    std::cmp::Ordering::Less => {
                        series
                            .label(format!("{second} = {colour}"))
                            .legend(move |(x, y)| {
                                Rectangle::new([(x, y - 4), (x + 8, y + 4)], style)
                            });
                    }
                    std::cmp::Ordering::Equal if colours.len() > LEGEND_ENTRIES => {
                        let more = colours.len() - index;
                        series.label(format!(
                            "… {} of {second}, not listed",
                            crate::eval::count(more, "more value", "more values")
                        ));
                    }
                    std::cmp::Ordering::Equal => {
                        series
                            .label(format!("{second} = {colour}"))
                            .legend(move |(x, y)| {
                                Rectangle::new([(x, y - 4), (x + 8, y + 4)], style)
                            });
                    }
                    std::cmp::Ordering::Greater => {}
                }
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK.mix(0.4))
                .draw()?;
        }
    }
    root.present()?;
    Ok(())
}
