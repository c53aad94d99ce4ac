"""Controllers: the window's engine side (AppCore), outputs, gallery, task threads and the
engine → Qt signal bridge. They hold the widgets they drive but lay none out."""
